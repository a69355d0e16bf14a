/** The vCard of a contact card Parley sends (the card the phone shows and saves). */

type Json = Record<string, unknown>;

/** A vCard 3.0 for a shared contact (the card the phone shows and saves): its name parts, numbers, emails, URLs, addresses. */
export function vcardOf(c: Json): string {
  const esc = (s: string) =>
    s
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(/([,;])/g, '\\$1');
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const kind = (type: unknown, otherwise: string) => (type === 'HOME' || type === 'WORK' ? type : otherwise);
  const name = String(c.full_name);
  const parts = [c.last_name, c.first_name, c.middle_name, c.name_prefix, c.name_suffix].map((p) => esc(text(p) ?? ''));
  // Without name parts the whole name is the family name (as before parts could be given).
  const n = parts.some((p) => p !== '') ? parts.join(';') : `${esc(name)};;;;`;
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `FN:${esc(name)}`, `N:${n}`];
  const [company, department] = [text(c.organization), text(c.department)];
  if (company || department) lines.push(`ORG:${esc(company ?? '')}${department ? `;${esc(department)}` : ''}`);
  if (text(c.job_title)) lines.push(`TITLE:${esc(String(c.job_title))}`);
  const phones = [...(text(c.phone) ? [{ phone: c.phone, type: c.phone_type }] : []), ...((c.phones as Json[] | undefined) ?? [])];
  for (const p of phones) {
    const phone = String(p.phone);
    const digits = phone.replace(/\D/g, '');
    const waid = text(p.wa_id) ?? digits;
    lines.push(
      `TEL;type=${kind(p.type, 'CELL')};type=VOICE${waid ? `;waid=${waid}` : ''}:${phone.startsWith('+') || !digits ? phone : `+${digits}`}`,
    );
  }
  for (const e of (c.emails as Json[] | undefined) ?? []) lines.push(`EMAIL;type=${kind(e.type, 'INTERNET')}:${esc(String(e.email))}`);
  // The content rules hold every entry's type to HOME or WORK.
  const typed = (entry: Json) => (text(entry.type) ? `;type=${String(entry.type)}` : '');
  for (const u of (c.urls as Json[] | undefined) ?? []) lines.push(`URL${typed(u)}:${String(u.url)}`);
  for (const a of (c.addresses as Json[] | undefined) ?? []) {
    const fields = [a.street, a.city, a.state, a.zip, a.country ?? a.country_code].map((f) => esc(text(f) ?? ''));
    lines.push(`ADR${typed(a)}:;;${fields.join(';')}`);
  }
  if (text(c.birthday)) lines.push(`BDAY:${String(c.birthday)}`);
  lines.push('END:VCARD');
  return lines.join('\n');
}
