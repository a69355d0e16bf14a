/**
 * The simplified formatting (docs/channels.md, "Embedded engine: simplified formatting"): messages a
 * linked device cannot send as such (buttons, lists, call-to-action links, carousels, templates,
 * products, address and location requests) become plain text with numbered options, which every
 * phone shows. The customer answers with the number or the words; the answer arrives as text.
 */
import type { MessageType } from '../../capabilities.ts';

type Json = Record<string, unknown>;

/** The text to send, and the media a header names (sent with the text as its caption). */
export type Simplified = { text: string; media?: { type: 'image' | 'video' | 'document'; url: string } };

/** The types the embedded engine sends as text (its support matrix row lists them as simplified). */
export const EMBEDDED_SIMPLIFIED_TYPES = [
  'template',
  'buttons',
  'list',
  'cta_url',
  'media_carousel',
  'product_carousel',
  'single_product',
  'multi_product',
  'catalog',
  'address',
  'location_request',
] as const satisfies readonly MessageType[];

export const SIMPLIFIED_TYPES: ReadonlySet<string> = new Set(EMBEDDED_SIMPLIFIED_TYPES);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const bold = (s: string) => `*${s}*`;
const italic = (s: string) => `_${s}_`;
const REPLY_WITH_NUMBER = 'Reply with the number of your choice.';

/** Header text in bold, or the media it names. */
function headerOf(header: unknown): { line?: string; media?: Simplified['media'] } {
  if (typeof header === 'string') return { line: bold(header) };
  if (header && typeof header === 'object') {
    const h = header as Json;
    if (h.type === 'text' && str(h.text)) return { line: bold(String(h.text)) };
    if ((h.type === 'image' || h.type === 'video' || h.type === 'document') && str(h.media_url))
      return { media: { type: h.type, url: String(h.media_url) } };
  }
  return {};
}

const numbered = (items: string[], start = 1) => items.map((item, i) => `${start + i}. ${item}`);

/** Blocks separated by a blank line; empty blocks dropped. */
const blocks = (...parts: Array<string | undefined | false>) =>
  parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n\n');

/** Text parameters of one template component, in order. */
function templateTexts(components: unknown, type: string): string[] {
  if (!Array.isArray(components)) return [];
  return components
    .filter((c): c is Json => typeof c === 'object' && c !== null && (c as Json).type === type)
    .flatMap((c) => (Array.isArray(c.parameters) ? (c.parameters as Json[]) : []))
    .map((p) => (p.type === 'text' ? str(p.text) : p.type === 'payload' ? str(p.payload) : undefined))
    .filter((t): t is string => t !== undefined);
}

/** The image a template's header parameters name, if any. */
function templateHeaderImage(components: unknown): Simplified['media'] {
  if (!Array.isArray(components)) return undefined;
  for (const c of components as Json[]) {
    if (c?.type !== 'header' || !Array.isArray(c.parameters)) continue;
    const image = (c.parameters as Json[]).find((p) => p.type === 'image');
    const link = str((image?.image as Json | undefined)?.link);
    if (link) return { type: 'image', url: link };
  }
  return undefined;
}

/** The plain-text form of a message of `type` (one of SIMPLIFIED_TYPES). */
export function formatSimplified(type: string, content: Json): Simplified {
  const header = headerOf(content.header);
  const footer = str(content.footer) ? italic(String(content.footer)) : undefined;
  const body = str(content.body);
  switch (type) {
    case 'buttons': {
      const titles = (content.buttons as Array<{ title: string }>).map((b) => b.title);
      return { text: blocks(header.line, body, numbered(titles).join('\n'), footer, REPLY_WITH_NUMBER), media: header.media };
    }
    case 'list': {
      let n = 1;
      const sections = (content.sections as Array<{ title: string; rows: Array<{ title: string; description?: string }> }>).map((s) => {
        const rows = numbered(
          s.rows.map((r) => (str(r.description) ? `${r.title} (${r.description})` : r.title)),
          n,
        );
        n += s.rows.length;
        return [bold(s.title), ...rows].join('\n');
      });
      return {
        text: blocks(
          header.line,
          body,
          str(content.button_text) ? italic(String(content.button_text)) : undefined,
          ...sections,
          footer,
          REPLY_WITH_NUMBER,
        ),
        media: header.media,
      };
    }
    case 'cta_url':
      return { text: blocks(header.line, body, `${String(content.display_text)}: ${String(content.url)}`, footer), media: header.media };
    case 'media_carousel': {
      const cards = (content.cards as Array<{ body?: string; buttons: Array<{ type: string; title: string; url?: string }> }>).map(
        (card, i) => {
          const buttons = card.buttons.map((b) => (b.type === 'url' ? `${b.title}: ${b.url}` : b.title));
          return [bold(`${i + 1}.`) + (str(card.body) ? ` ${card.body}` : ''), ...buttons.map((b) => `   ${b}`)].join('\n');
        },
      );
      return { text: blocks(body, ...cards) };
    }
    case 'product_carousel': {
      const ids = (content.products as Array<{ product_retailer_id: string }>).map((p) => p.product_retailer_id);
      return { text: blocks(body, numbered(ids).join('\n'), REPLY_WITH_NUMBER) };
    }
    case 'single_product':
      return { text: blocks(body, `${bold('Product')}: ${String(content.product_retailer_id)}`, footer) };
    case 'multi_product': {
      let n = 1;
      const sections = (content.sections as Array<{ title: string; product_retailer_ids: string[] }>).map((s) => {
        const rows = numbered(s.product_retailer_ids, n);
        n += s.product_retailer_ids.length;
        return [bold(s.title), ...rows].join('\n');
      });
      return { text: blocks(str(content.header) ? bold(String(content.header)) : undefined, body, ...sections, footer, REPLY_WITH_NUMBER) };
    }
    case 'catalog':
      return { text: blocks(body, footer) };
    case 'address': {
      const values = Object.entries((content.values as Record<string, string> | undefined) ?? {}).map(
        ([k, v]) => `${k.replace(/_/g, ' ')}: ${v}`,
      );
      return { text: blocks(body, values.length ? values.join('\n') : undefined, 'Please reply with your full address.') };
    }
    case 'location_request':
      return { text: blocks(body, 'Please share your location (📎 → Location).') };
    case 'template': {
      const template = content.template as { name: string; components?: unknown };
      const headerTexts = templateTexts(template.components, 'header').map(bold);
      const bodyTexts = templateTexts(template.components, 'body');
      const buttons = templateTexts(template.components, 'button');
      const text = blocks(headerTexts.join('\n'), bodyTexts.join('\n'), buttons.length ? numbered(buttons).join('\n') : undefined);
      return { text: text || `[${template.name}]`, media: templateHeaderImage(template.components) };
    }
    default:
      return { text: body ?? '' };
  }
}
