/**
 * An approved template's variables ({{1}}, {{2}} in its header, body and URL buttons) as fields to fill,
 * and the filled values as the `components` of a template message (POST /v1/messages, type template).
 */

export type TemplateSlot = {
  /** Where the value goes: the header, the body, or button `index`. */
  component: 'header' | 'body' | 'button';
  index?: number;
  /** The variable's number ({{n}}), 1-based. */
  number: number;
  /** The component's text around the variable, to say what it is for. */
  context: string;
};

type Json = Record<string, unknown>;

/** The highest {{n}} in a text (the provider numbers variables from 1 without gaps). */
function variableCount(text: unknown): number {
  if (typeof text !== 'string') return 0;
  let max = 0;
  for (const match of text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) max = Math.max(max, Number(match[1]));
  return max;
}

/** Every variable of the template, in the order the message carries them. */
export function templateSlots(components: readonly unknown[]): TemplateSlot[] {
  const slots: TemplateSlot[] = [];
  const of = (type: string) =>
    components.find((c): c is Json => typeof c === 'object' && c !== null && String((c as Json).type).toUpperCase() === type);
  const header = of('HEADER');
  if (header && String(header.format ?? 'TEXT').toUpperCase() === 'TEXT') {
    for (let n = 1; n <= variableCount(header.text); n++) slots.push({ component: 'header', number: n, context: String(header.text) });
  }
  const body = of('BODY');
  if (body) for (let n = 1; n <= variableCount(body.text); n++) slots.push({ component: 'body', number: n, context: String(body.text) });
  const buttons = of('BUTTONS');
  if (buttons && Array.isArray(buttons.buttons)) {
    buttons.buttons.forEach((button: unknown, index) => {
      if (typeof button !== 'object' || button === null) return;
      const b = button as Json;
      if (String(b.type).toUpperCase() !== 'URL') return;
      for (let n = 1; n <= variableCount(b.url); n++) slots.push({ component: 'button', index, number: n, context: String(b.url) });
    });
  }
  return slots;
}

/** The template's body text, for a preview. */
export function templateBody(components: readonly unknown[]): string {
  const body = components.find((c) => typeof c === 'object' && c !== null && String((c as Json).type).toUpperCase() === 'BODY') as
    | Json
    | undefined;
  return typeof body?.text === 'string' ? body.text : '';
}

export type TemplateComponent =
  | { type: 'header' | 'body'; parameters: Array<{ type: 'text'; text: string }> }
  | { type: 'button'; sub_type: 'url'; index: string; parameters: Array<{ type: 'text'; text: string }> };

/**
 * The message's components for the values given (one per slot, in order). Also says, for each slot,
 * the JSON pointer of its value in the request, so the API's field errors land next to their field.
 */
export function templateComponents(
  slots: readonly TemplateSlot[],
  values: readonly string[],
): { components: TemplateComponent[]; pointers: string[] } {
  const components: TemplateComponent[] = [];
  const pointers: string[] = [];
  slots.forEach((slot, i) => {
    let target = components.find((c) => c.type === slot.component && (c.type !== 'button' || c.index === String(slot.index)));
    if (!target) {
      target =
        slot.component === 'button'
          ? { type: 'button', sub_type: 'url', index: String(slot.index), parameters: [] }
          : { type: slot.component, parameters: [] };
      components.push(target);
    }
    pointers.push(`/content/template/components/${components.indexOf(target)}/parameters/${target.parameters.length}`);
    target.parameters.push({ type: 'text', text: values[i] ?? '' });
  });
  return { components, pointers };
}
