/**
 * The default pipeline every organization starts with (migration 0019 gave it to the organizations
 * there already, with the same stages): a sales process deals enter when no pipeline is named.
 */
import type { Executor } from '../../db/client.ts';
import { pipelines, pipelineStages } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { StageKind } from './pipelines.ts';

export const DEFAULT_PIPELINE: { name: string; stages: ReadonlyArray<{ name: string; probability: number; kind: StageKind }> } = {
  name: 'Sales',
  stages: [
    { name: 'New', probability: 10, kind: 'open' },
    { name: 'Qualified', probability: 25, kind: 'open' },
    { name: 'Proposal', probability: 50, kind: 'open' },
    { name: 'Negotiation', probability: 75, kind: 'open' },
    { name: 'Won', probability: 100, kind: 'won' },
    { name: 'Lost', probability: 0, kind: 'lost' },
  ],
};

/** Gives a new organization its default pipeline (in the caller's transaction, when it has one). */
export async function createDefaultPipeline(db: Executor, organizationId: string, now: Date): Promise<void> {
  const pipelineId = uuidv7();
  await db
    .insert(pipelines)
    .values({ id: pipelineId, organizationId, name: DEFAULT_PIPELINE.name, isDefault: true, createdAt: now, updatedAt: now });
  await db.insert(pipelineStages).values(
    DEFAULT_PIPELINE.stages.map((stage, position) => ({
      id: uuidv7(),
      organizationId,
      pipelineId,
      ...stage,
      position,
      createdAt: now,
      updatedAt: now,
    })),
  );
}
