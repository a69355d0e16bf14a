/** The provider's checks of a template message: its name, language, components and their parameters. */
import { isObject, need, present, valid, known, object, string, array, MEDIA_TYPES, checkMedia } from './params.ts';

const COMPONENT_TYPES = ['header', 'body', 'button'];
const PARAMETER_TYPES = ['text', 'currency', 'date_time', 'image', 'video', 'document', 'payload', 'action', 'coupon_code'];

export function checkTemplate(payload: unknown): { name: string; language: string; bodyParameters: number } {
  const template = object(payload, 'template', ['name', 'language', 'components']);
  const name = string(template.name, "template['name']", 512);
  const language = object(template.language, "template['language']", ['code', 'policy']);
  const code = string(language.code, "template['language']['code']", 15);
  if (language.policy !== undefined)
    valid(language.policy === 'deterministic', "Param template['language']['policy'] must be 'deterministic'.");
  let bodyParameters = 0;
  if (template.components !== undefined) {
    array(template.components, "template['components']", 0, 20).forEach((entry, i) => {
      const at = `template['components'][${i}]`;
      const component = object(entry, at, ['type', 'sub_type', 'index', 'parameters']);
      present(component.type, `${at}['type']`);
      const kind = String(component.type).toLowerCase();
      valid(COMPONENT_TYPES.includes(kind), `Param ${at}['type'] must be one of {${COMPONENT_TYPES.join(', ')}}.`);
      if (kind === 'button') {
        string(component.sub_type, `${at}['sub_type']`, 32);
        present(component.index, `${at}['index']`);
        valid(/^\d+$/.test(String(component.index)), `Param ${at}['index'] must be a zero-based index.`);
      }
      if (component.parameters === undefined) return;
      array(component.parameters, `${at}['parameters']`, 0, 100).forEach((p, j) => {
        const pat = `${at}['parameters'][${j}]`;
        need(isObject(p), `Param ${pat} must be an object.`);
        const ptype = string(p.type, `${pat}['type']`, 32);
        valid(PARAMETER_TYPES.includes(ptype), `Param ${pat}['type'] must be one of {${PARAMETER_TYPES.join(', ')}}.`);
        known(p, ['type', ptype], pat);
        present(p[ptype], `${pat}['${ptype}']`);
        if (ptype === 'text') need(typeof p.text === 'string', `Param ${pat}['text'] must be a string.`);
        if (MEDIA_TYPES.has(ptype)) checkMedia(ptype, p[ptype], `${pat}['${ptype}']`);
      });
      if (kind === 'body') bodyParameters += (component.parameters as unknown[]).length;
    });
  }
  return { name, language: code, bodyParameters };
}
