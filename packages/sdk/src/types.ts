/**
 * Each operation's argument and answer, read from the generated OpenAPI types by operationId: path and
 * query parameters as top-level fields, the request body as `body`; the answer is the success's body.
 */
import type { operations } from './generated/openapi.ts';
import type { GROUPS, OPERATIONS } from './generated/operations.ts';
import type { PagePromise } from './pagination.ts';

export type OperationId = keyof typeof OPERATIONS & keyof operations;

/** What every call takes beside the operation's own fields. */
export type RequestOptions = {
  /** Sent as Idempotency-Key (the client adds a random one to every POST without it). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** More request headers (header parameters such as Last-Event-ID or Range go here). */
  headers?: Record<string, string>;
};

type Op<K extends OperationId> = operations[K];
/** The empty object type: the identity of `&`. */
type Empty = Record<never, never>;
type Simplify<T> = { [P in keyof T]: T[P] } & Empty;
/** A parameter group of the generated types (`never` or undefined when the operation has none). */
type Group<T> = [T] extends [never] ? Empty : [NonNullable<T>] extends [never] ? Empty : NonNullable<T>;
type ContentOf<T> = T extends { content: infer C } ? C[keyof C] : never;

type PathParams<K extends OperationId> = Group<Op<K>['parameters']['path']>;
type QueryParams<K extends OperationId> = Group<Op<K>['parameters']['query']>;

/** The request body: required when the document says so; a multipart body may be given as FormData. */
type BodyArgument<K extends OperationId> =
  Op<K> extends { requestBody: infer R }
    ? [ContentOf<R>] extends [never]
      ? Empty
      : { body: BodyValue<K, ContentOf<R>> }
    : Op<K> extends { requestBody?: infer R }
      ? [ContentOf<NonNullable<R>>] extends [never]
        ? Empty
        : { body?: BodyValue<K, ContentOf<NonNullable<R>>> | null }
      : Empty;
type BodyValue<K extends OperationId, B> = (typeof OPERATIONS)[K] extends { body: 'multipart' } ? B | FormData : B;

/** The argument of an operation's method. */
export type ArgsOf<K extends OperationId> = Simplify<PathParams<K> & QueryParams<K> & BodyArgument<K> & RequestOptions>;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type SuccessBody<K extends OperationId> = {
  [S in keyof Op<K>['responses']]: S extends SuccessStatus ? ContentOrNothing<Op<K>['responses'][S]> : never;
}[keyof Op<K>['responses']];
type ContentOrNothing<R> = R extends { content: infer C } ? ([C] extends [never] ? undefined : C[keyof C]) : undefined;

/** What an operation resolves to: the success's body (a Blob for media, a byte stream for the event stream). */
export type ResultOf<K extends OperationId> = (typeof OPERATIONS)[K] extends { answer: 'blob' }
  ? Blob
  : (typeof OPERATIONS)[K] extends { answer: 'stream' }
    ? ReadableStream<Uint8Array>
    : (typeof OPERATIONS)[K] extends { answer: 'text' }
      ? string
      : (typeof OPERATIONS)[K] extends { answer: 'none' }
        ? undefined
        : SuccessBody<K>;

/** One item of a list operation's page. */
export type ItemOf<K extends OperationId> = ResultOf<K> extends { data: Array<infer I> } ? I : never;

/** A list (paged by cursor) answers a PagePromise, any other operation a Promise. */
export type ReturnOf<K extends OperationId> = (typeof OPERATIONS)[K] extends { list: true }
  ? PagePromise<ResultOf<K> & { data: ItemOf<K>[]; meta: { next_cursor?: string | null } }, ItemOf<K>>
  : Promise<ResultOf<K>>;

/** An operation's method: its argument may be left out when none of its fields is required. */
export type MethodOf<K extends OperationId> =
  Empty extends ArgsOf<K> ? (args?: ArgsOf<K>) => ReturnOf<K> : (args: ArgsOf<K>) => ReturnOf<K>;

export type GroupName = keyof typeof GROUPS;

/** The client's groups: `parley.messages.send`, … (generated/operations.ts). */
export type Groups = {
  readonly [G in GroupName]: {
    readonly [M in keyof (typeof GROUPS)[G]]: (typeof GROUPS)[G][M] extends OperationId ? MethodOf<(typeof GROUPS)[G][M]> : never;
  };
};
