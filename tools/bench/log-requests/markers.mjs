// The phase markers of `pnpm bench log-requests`: a child sends `GET <proxy>/__bench_mark__/<label>` before and
// after each phase it wants counted (the open, each upsert), and the parent splits the proxy's recorded
// requests at those markers. Markers are never delayed and never counted as S3 requests.
export const MARKER_PREFIX = "/__bench_mark__/";

/** Sends one marker through the proxy; the S3 server's answer (an error: no such bucket) is ignored. */
export async function sendMarker(proxyEndpoint, label) {
  const response = await fetch(`${proxyEndpoint}${MARKER_PREFIX}${label}`);
  await response.arrayBuffer();
}

/** The marker label of a recorded request path, or undefined for an S3 request. */
export function markerLabel(path) {
  return path.startsWith(MARKER_PREFIX) ? path.slice(MARKER_PREFIX.length) : undefined;
}
