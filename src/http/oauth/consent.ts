/** The consent shown by both flows' pages, as the wire has it: the client, its scopes in words, the organizations to choose. */
import { z } from 'zod';
import type { Consent } from '../../domain/oauth/consent.ts';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS } from '../../domain/permissions.ts';

export const OAuthClientSummarySchema = z.object({
  client_id: z.string().meta({ example: 'pcl_8mZk2xQv7LrT' }),
  name: z.string().meta({ description: 'The name the client was registered with', example: 'Parley CLI' }),
});

const ConsentScopeSchema = z.object({
  name: z.enum(PERMISSIONS),
  description: z.string().meta({ description: 'What the scope lets the client do, in words' }),
});

const OrganizationChoiceSchema = z.object({
  organization_id: z.uuid(),
  organization_name: z.string(),
  role: z.enum(['owner', 'admin', 'member']).meta({ description: "The user's role in it" }),
});

/** The members every consent has. */
export const consentShape = {
  client: OAuthClientSummarySchema,
  scopes: z.array(ConsentScopeSchema).meta({ description: 'The scopes the client asks for' }),
  organizations: z
    .array(OrganizationChoiceSchema)
    .meta({ description: "The user's organizations: the ones the client may be allowed to reach" }),
  expires_at: z.string().meta({ format: 'date-time', description: 'The decision must be made before this time' }),
};

/** A consent as the wire has it (the members of consentShape). */
export type OAuthConsentRecord = z.infer<z.ZodObject<typeof consentShape>>;

/** organization_ids of an approval: one or more organizations of the user's. */
export const OrganizationIdsSchema = z
  .array(z.uuid())
  .min(1)
  .max(100)
  .meta({
    description: 'The organizations the client may reach: at least one, each one the user is a member of',
    example: ['0196b1f2-0a00-7000-8000-0000000000a1'],
  });

export function presentConsent(consent: Consent) {
  return {
    client: { client_id: consent.client.clientId, name: consent.client.name },
    scopes: consent.scopes.map((name) => ({ name, description: PERMISSION_DESCRIPTIONS[name] })),
    organizations: consent.organizations.map((m) => ({
      organization_id: m.organizationId,
      organization_name: m.organizationName,
      role: m.role,
    })),
    expires_at: consent.expiresAt.toISOString(),
  };
}
