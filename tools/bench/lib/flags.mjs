// Owns the benchmarks' command-line flags: each script's known flags (`--name value` or `--name=value`; a
// switch alone means `true`) override its defaults, and every other `--kebab-name value` becomes a camelCased
// option of the engine call (`--max-buffered-bytes 268435456` → { maxBufferedBytes: 268435456 }), numbers as
// numbers and true/false as booleans. `--help` / `-h` prints the script's usage and exits 0.

/** "true" / "false" → booleans, numeric text → numbers, anything else stays text. */
export function typedValue(value) {
  if (value === "true") return true;
  if (value === "false") return false;
  return Number.isNaN(Number(value)) ? value : Number(value);
}

const camelCased = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

/**
 * `argv` → `{ flags, knobs }`: `flags` holds `defaults` with the known flags given, `knobs` the rest.
 * `switches`: known flags that take no value; `usage`: what `--help` prints.
 */
export function parseBenchFlags(argv, { defaults, switches = [], usage }) {
  const flags = { ...defaults };
  const knobs = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") {
      console.log(usage);
      process.exit(0);
    }
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    let name = arg.slice(2);
    let value;
    const equals = name.indexOf("=");
    if (equals >= 0) [name, value] = [name.slice(0, equals), name.slice(equals + 1)];
    else if (switches.includes(name)) value = "true";
    else value = argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    if (name in defaults) flags[name] = value;
    else knobs[camelCased(name)] = typedValue(value);
  }
  return { flags, knobs };
}
