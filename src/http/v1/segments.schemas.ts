/** The segments routes' schemas (segments.ts), and the refusal of a filter that GET /v1/contacts shares. */
import { z } from 'zod';
import { invalid } from '../../domain/errors.ts';
import { FilterSchema, type FilterGroup, type FilterResult } from '../../domain/segments/filter.ts';
import { located, type InputLocation } from '../input-location.ts';
import { ContactSchema } from './contacts.schemas.ts';

/** A filter parseFilter checked, or a 400 naming every path at fault (`filter.and[1].op`). */
export function checkedFilter(result: FilterResult, location: InputLocation): FilterGroup {
  if (!result.ok) throw invalid(`filter is invalid: ${result.errors.map((e) => e.message).join('; ')}`, located(result.errors, location));
  return result.filter;
}

const EXAMPLE_FILTER = {
  and: [
    { field: 'tags', op: 'has', value: 'vip' },
    { field: 'consents.chatapp', op: 'eq', value: 'granted' },
    { field: 'suppressions.any', op: 'exists', value: false },
    {
      or: [
        { field: 'last_inbound_at', op: 'within', value: 'P30D' },
        { field: 'company.address.country', op: 'eq', value: 'DE' },
      ],
    },
  ],
};

export const SegmentSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    filter: FilterSchema,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Segment' });

/**
 * A filter in a request: read by parseFilter in the handler, so a refusal names the path at fault
 * (`/filter/and/1/op`) rather than the schema's union; its shape is the Segment's `filter`.
 */
export const FilterInput = z.unknown().meta({
  description:
    'A filter: `{"and": [...]}` or `{"or": [...]}` of conditions `{field, op, value}` and nested groups (the shape of `Segment.filter`; fields and operators in docs/crm.md "Segments"). 400 naming the path at fault.',
  example: EXAMPLE_FILTER,
});

const SegmentFields = {
  name: z.string().trim().min(1).max(200).meta({ description: 'Unique in the organization (case-insensitive)' }),
  description: z.string().max(2000).nullable().optional(),
  filter: FilterInput,
};

export const CreateSegmentBody = z.object(SegmentFields).meta({
  id: 'CreateSegmentRequest',
  description:
    'Records crm.record.created (object_kind `segment`). 400 naming the filter path at fault (`/filter/and/1/op`); 409 naming name when another segment has it.',
  examples: [{ name: 'Engaged VIPs', description: 'VIPs who wrote in the last 30 days', filter: EXAMPLE_FILTER }],
});

export const UpdateSegmentBody = z
  .object(SegmentFields)
  .partial()
  .meta({
    id: 'UpdateSegmentRequest',
    description: 'The fields to change; `filter` is replaced as a whole. Records crm.record.updated when something changed.',
    examples: [
      { name: 'Engaged VIPs (DE)' },
      { filter: { or: [{ field: 'lists', op: 'in', value: '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b' }] } },
    ],
  });

export const PreviewBody = z.object({ filter: FilterInput }).meta({
  id: 'SegmentPreviewRequest',
  description: 'A filter not saved (a segment being built): its count and first contacts.',
  examples: [{ filter: EXAMPLE_FILTER }],
});

export const SegmentCountSchema = z
  .object({
    count: z.number().int().meta({ description: 'The contacts the filter finds now' }),
    counted_at: z.string().meta({ description: 'When they were counted' }),
  })
  .meta({ id: 'SegmentCount' });

export const SegmentPreviewSchema = z
  .object({
    count: z.number().int().meta({ description: 'The contacts the filter finds now', example: 1234 }),
    contacts: z.array(ContactSchema).meta({ description: 'The newest 20 of them' }),
  })
  .meta({ id: 'SegmentPreview' });
