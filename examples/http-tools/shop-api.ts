/**
 * A fake shop API for the HTTP tools example, on loopback: `GET /orders/:id`, `POST /refunds`
 * (deduplicated by the `Idempotency-Key` header, as payment APIs do) and `POST /notes` (a note to the
 * customer, deduplicated the same way), all requiring
 * `Authorization: Bearer <token>`. It counts the calls it gets, so the example can show that a run
 * calls it once per step and a replay not at all.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ShopApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Calls received, by route (`GET /orders`, `POST /refunds`). */
  readonly calls: Readonly<Record<string, number>>;
  /** Refunds made, by idempotency key. */
  readonly refunds: ReadonlyMap<string, { readonly order: string; readonly amount: number }>;
  /** Notes sent to customers, by idempotency key. */
  readonly notes: ReadonlyMap<string, { readonly order: string; readonly text: string }>;
  close(): Promise<void>;
}

const ORDERS: Record<string, { id: string; total: number }> = { 'O-7': { id: 'O-7', total: 30 } };

export async function startShopApi(token: string): Promise<ShopApi> {
  const calls: Record<string, number> = {};
  const refunds = new Map<string, { order: string; amount: number }>();
  const notes = new Map<string, { order: string; text: string }>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const send = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      const url = req.url ?? '';
      const route = `${req.method} ${url.startsWith('/orders/') ? '/orders' : url}`;
      calls[route] = (calls[route] ?? 0) + 1;
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'unauthorized' });
      if (route === 'GET /orders') {
        const order = ORDERS[decodeURIComponent(url.slice('/orders/'.length))];
        return order ? send(200, order) : send(404, { error: 'no such order' });
      }
      if (route === 'POST /refunds') {
        const key = req.headers['idempotency-key'];
        if (typeof key !== 'string') return send(400, { error: 'Idempotency-Key required' });
        const { order, amount } = JSON.parse(body) as { order: string; amount: number };
        if (!refunds.has(key)) refunds.set(key, { order, amount });
        return send(201, { refund: `rf_${[...refunds.keys()].indexOf(key) + 1}`, order, amount });
      }
      if (route === 'POST /notes') {
        const key = req.headers['idempotency-key'];
        if (typeof key !== 'string') return send(400, { error: 'Idempotency-Key required' });
        const { order, text } = JSON.parse(body) as { order: string; text: string };
        if (!notes.has(key)) notes.set(key, { order, text });
        return send(201, { note: `nt_${[...notes.keys()].indexOf(key) + 1}`, order });
      }
      return send(404, { error: 'no such route' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    refunds,
    notes,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
