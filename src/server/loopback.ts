/** Loopback addresses, for what `keel serve` serves without a token (GET /metrics). */
/** Whether an address to listen on is this machine's loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(hostname: string): boolean {
  const h = hostname
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
