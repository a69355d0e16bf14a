/** The search's API call and wire type (the server's record type, imported as a type only). */
import type { presentSearchHit } from '../../../http/v1/search.ts';
import { call, type Page } from '../../api.ts';

export type SearchHitRecord = ReturnType<typeof presentSearchHit>;

export const searchApi = {
  search: (q: string, kinds: string, cursor?: string) =>
    call<Page<SearchHitRecord>>('GET', '/v1/search', { query: { q, kinds: kinds || undefined, cursor } }),
};
