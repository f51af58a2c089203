// Forbidden: WebSocket does network I/O.
export const socket = new WebSocket('wss://example.com'); // expect: WebSocket
