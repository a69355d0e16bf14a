/** Amounts in a currency's minor units (the API's integers), shown and typed in its major units. */

/** How many minor-unit digits a currency has (2 for EUR, 0 for JPY, 3 for KWD); 2 when unknown. */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** 1250000 EUR → "€12,500.00" (in the browser's locale). */
export function formatMoney(amount: number, currency: string): string {
  const digits = minorDigits(currency);
  const value = amount / 10 ** digits;
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);
  } catch {
    return `${value.toFixed(digits)} ${currency}`;
  }
}

/** A deal's amount, or "—". */
export function dealAmount(deal: { amount: number | null; currency: string | null }): string {
  return deal.amount !== null && deal.currency ? formatMoney(deal.amount, deal.currency) : '—';
}

/**
 * What a person typed ("12500", "12,500.50", "12500.5") in the currency's minor units; undefined when it
 * is not an amount (the form says so), null when empty. A comma before exactly three digits groups thousands.
 */
export function parseMoney(text: string, currency: string): number | null | undefined {
  const trimmed = text.trim().replace(/[\s\u00a0']/g, '');
  if (trimmed === '') return null;
  const normalized = trimmed.replace(/,(?=\d{3}(\D|$))/g, '').replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(normalized)) return undefined;
  const digits = minorDigits(currency || 'EUR');
  const [whole = '0', fraction = ''] = normalized.split('.');
  if (fraction.length > digits) return undefined;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** The amount in major units for a form field: 1250000 EUR → "12500.00". */
export function moneyInput(amount: number | null, currency: string | null): string {
  if (amount === null || !currency) return '';
  const digits = minorDigits(currency);
  return (amount / 10 ** digits).toFixed(digits);
}
