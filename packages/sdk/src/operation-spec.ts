/** One operation as the client calls it: an entry of the generated table (generated/operations.ts). */
export type OperationSpec = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tag: string;
  /** The client's group, or null: left out of the groups (reachable through `parley.request`). */
  group: string | null;
  name: string | null;
  /** Pages by `cursor`: the method answers a PagePromise. */
  list: boolean;
  /** How the request body is written (none: no body). */
  body?: 'json' | 'form' | 'multipart' | 'text';
  /** The media type of a text body (text/csv, …). */
  media?: string;
  /** How a success is read (default json). */
  answer?: 'text' | 'blob' | 'stream' | 'none';
  /** The service answers a repeated Idempotency-Key with the first outcome. */
  idempotencyKey?: true;
};
