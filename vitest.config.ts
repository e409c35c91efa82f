import { defineConfig } from "vitest/config";

// Tests import workspace packages through their "@deltalite/source" export condition, so they run against
// sources without a build. One global set-up starts moto_server and the delta-rs oracle worker for the run.
export default defineConfig({
  resolve: { conditions: ["@deltalite/source"] },
  ssr: { resolve: { conditions: ["@deltalite/source"] } },
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "tools/test/**/*.test.ts",
      "tests/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
    ],
    globalSetup: ["tools/src/vitest-global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
