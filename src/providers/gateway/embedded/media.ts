/**
 * PLACEHOLDER (the embedded-content branch replaces this file at merge): downloads an inbound
 * message's media through the library.
 */
import type { TargetPolicy } from '../../../lib/safe-fetch.ts';
import type { MediaDownload, Result } from '../../provider.ts';

export async function downloadEmbeddedMedia(_source: Record<string, unknown>, _targets: TargetPolicy): Promise<Result<MediaDownload>> {
  return { ok: false, error: { code: 'unsupported', title: 'media download through the embedded engine is not built yet', retryable: false } };
}
