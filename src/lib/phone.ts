/** Phone numbers in E.164 (`+` and digits), parsed with libphonenumber from any common format. */
import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Zero of each decimal-digit script people paste numbers in (fullwidth forms are folded by NFKC). */
const DIGIT_ZEROS = [
  0x0660, 0x06f0, 0x07c0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0b66, 0x0be6, 0x0c66, 0x0ce6, 0x0d66, 0x0e50, 0x0ed0, 0x0f20, 0x1040, 0x17e0,
  0x1810,
];
/** A trailing extension: "ext. 12", "extension 12", "x12", "#12", ";ext=12". Chat apps have no extensions. */
const EXTENSION = /\s*(?:;\s*ext=|,?\s*(?:ext\.?|extension|x|#))\s*\d{1,7}\s*$/i;

const NANP = /^\+1\d{10}$/;

function asciiDigits(text: string): string {
  return text.normalize('NFKC').replace(/\p{Nd}/gu, (ch) => {
    const cp = ch.codePointAt(0)!;
    const zero = DIGIT_ZEROS.find((z) => cp >= z && cp <= z + 9);
    return zero === undefined ? ch : String(cp - zero);
  });
}

/**
 * The E.164 form of a number written in any common international format ("+49 30 1234567",
 * "0049-30-1234567", "011 49 30 1234567", "4930 1234567", "(+1) 415.555.0100", "tel:+1-415-555-0100",
 * "+44 (0)20 7946 0958", "+1 415 555 0100 ext. 12" (the extension is dropped), non-ASCII digits);
 * undefined when it is not a possible number.
 * Numbers without a country code are read as international digits, as the API's `to` field is.
 */
export function normalizePhone(input: string): string | undefined {
  if (input.length > 80) return undefined;
  const trimmed = asciiDigits(input).trim().replace(/^tel:/i, '').replace(EXTENSION, '');
  if (trimmed.length === 0 || trimmed.length > 40 || /[a-z]/i.test(trimmed)) return undefined;
  let digits = trimmed.replace(/[^\d+]/g, '');
  // International call prefixes: 00 (most of the world) and 011 (North America). No country code starts with 0.
  if (digits.startsWith('00')) digits = `+${digits.slice(2)}`;
  else if (digits.startsWith('011')) digits = `+${digits.slice(3)}`;
  if (!digits.startsWith('+')) digits = `+${digits}`;
  if ((digits.match(/\+/g) ?? []).length > 1) return undefined;
  // +1 with ten digits is always a possible NANP number and already E.164; libphonenumber would spend
  // ~20 µs matching it against NANP's 25 regions to say so (it matters in a 100,000-row import).
  if (NANP.test(digits)) return digits;
  const parsed = parsePhoneNumberFromString(digits);
  if (!parsed || !parsed.isPossible()) return undefined;
  return parsed.number;
}

/** International digits without `+`, as providers take them. */
export function phoneDigits(e164: string): string {
  return e164.replace(/^\+/, '');
}

/** Every country calling code of libphonenumber's metadata (a prefix code: no code starts another). */
let callingCodes: string[] | undefined;

const E164 = /^\+[1-9]\d{5,14}$/;

/**
 * The E.164 numbers a number written without its country code may be, in any country: the country's
 * code before the digits, and before the digits without a leading trunk 0 ("020 7946 0958" is
 * +44 20 7946 0958; Italy's "06 6982 1234" keeps its 0). Calling codes are a prefix code, so a stored
 * number is among them exactly when its national number is these digits. Without a default country
 * this is as far as the digits say; at most two candidates a calling code.
 */
export function nationalNumberCandidates(digits: string): string[] {
  if (!/^\d+$/.test(digits)) return [];
  callingCodes ??= [...new Set(getCountries().map((country) => getCountryCallingCode(country)))];
  const nationals = digits.startsWith('0') ? [digits, digits.slice(1)] : [digits];
  return callingCodes.flatMap((code) => nationals.map((national) => `+${code}${national}`)).filter((e164) => E164.test(e164));
}
