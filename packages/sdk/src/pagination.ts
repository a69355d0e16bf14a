/**
 * A list call's answer: awaited, its first page (`{data, meta: {next_cursor}}`); iterated with
 * `for await`, every item of every page, each next page asked for with the previous one's
 * `next_cursor` until it is null (or a page comes back empty: the event log's cursor is never null,
 * so that a reader can ask again later). Nothing is sent until it is awaited or iterated.
 */

export type Page<Item> = { data: Item[]; meta: { next_cursor?: string | null; [key: string]: unknown } };

export class PagePromise<P extends Page<Item>, Item = P['data'][number]> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<P>;
  readonly #cursor: string | undefined;
  #first: Promise<P> | undefined;

  /** fetchPage(cursor) answers one page; cursor is the caller's own first cursor, then each next_cursor. */
  constructor(fetchPage: (cursor: string | undefined) => Promise<P>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  #firstPage(): Promise<P> {
    this.#first ??= this.#fetchPage(this.#cursor);
    return this.#first;
  }

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#firstPage().finally(onFinally);
  }

  /** Every page, the first one included. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page = await this.#firstPage();
    for (;;) {
      yield page;
      const next = page.meta?.next_cursor;
      if (!next || page.data.length === 0) return;
      page = await this.#fetchPage(next);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  get [Symbol.toStringTag]() {
    return 'PagePromise';
  }
}
