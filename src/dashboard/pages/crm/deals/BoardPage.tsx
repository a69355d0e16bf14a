/**
 * The deals board of a pipeline (picked in the address, `?pipeline=…`; the default pipeline without it):
 * a column per stage. A deal moves by dragging its card to another column, or from the keyboard with
 * its "Move…" button; either is `PATCH /v1/deals/{id} {stage_id}`, shown at once and said in a live region.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { SelectField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { Link, useSearchParams } from '../../../router.tsx';
import { useCan } from '../../../session.tsx';
import { ErrorMessage, Loading, PageHeader } from '../../../ui.tsx';
import { crmApi, type BoardRecord, type DealRecord } from '../api.ts';
import { BoardColumn } from './BoardColumn.tsx';

export function BoardPage() {
  const [params, setParams] = useSearchParams();
  const canWrite = useCan('crm:write');
  const pipelines = useQuery({ queryKey: orgKey('crm', 'pipelines'), queryFn: crmApi.pipelines });
  const chosen = params.get('pipeline') ?? '';
  const pipelineId = chosen || pipelines.data?.find((p) => p.is_default)?.id || pipelines.data?.[0]?.id || '';
  const boardKey = orgKey('crm', 'board', pipelineId);
  const board = useQuery({ queryKey: boardKey, queryFn: () => crmApi.board(pipelineId), enabled: pipelineId !== '' });
  const queryClient = useQueryClient();
  const [announcement, setAnnouncement] = useState('');
  const [focusDealId, setFocusDealId] = useState<string>();

  const move = useMutation({
    mutationFn: ({ deal, stageId }: { deal: DealRecord; stageId: string }) => crmApi.updateDeal(deal.id, { stage_id: stageId }),
    onMutate: async ({ deal, stageId }) => {
      await queryClient.cancelQueries({ queryKey: boardKey });
      queryClient.setQueryData<BoardRecord>(boardKey, (old) => (old ? moveCard(old, deal, stageId) : old));
      const to = board.data?.stages.find((s) => s.id === stageId)?.name ?? 'another stage';
      setAnnouncement(`Moving ${deal.name} to ${to}…`);
    },
    onSuccess: (_saved, { deal, stageId }) => {
      const to = board.data?.stages.find((s) => s.id === stageId)?.name ?? 'another stage';
      setAnnouncement(`Moved ${deal.name} to ${to}.`);
    },
    onError: (_error, { deal }) => setAnnouncement(`Could not move ${deal.name}.`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: orgKey('crm') }),
  });

  const error = pipelines.error ?? board.error;
  return (
    <div className="crm-area">
      <PageHeader title="Deals" description="Each pipeline's deals by stage. Drag a card to another stage, or use its Move button.">
        {canWrite ? (
          <Link className="button button-primary" to={pipelineId ? `/deals/new?pipeline=${pipelineId}` : '/deals/new'}>
            New deal
          </Link>
        ) : null}
      </PageHeader>
      {pipelines.data && pipelines.data.length > 1 ? (
        <div className="filter-bar">
          <SelectField
            label="Pipeline"
            value={pipelineId}
            onChange={(id) => setParams(new URLSearchParams({ pipeline: id }))}
            options={pipelines.data.map((p) => ({ value: p.id, label: p.is_default ? `${p.name} (default)` : p.name }))}
          />
        </div>
      ) : null}
      <p className="visually-hidden" role="status" aria-live="polite" data-testid="board-announcer">
        {announcement}
      </p>
      <ErrorMessage
        message={move.error ? `Could not move the deal: ${errorMessage(move.error)}` : undefined}
        onDismiss={() => move.reset()}
      />
      {error && !board.data ? (
        <ErrorMessage message={errorMessage(error)} />
      ) : !board.data ? (
        <Loading />
      ) : (
        <div className="board" role="region" aria-label={`${board.data.pipeline.name} board`} tabIndex={0}>
          {board.data.stages.map((stage) => (
            <BoardColumn
              key={stage.id}
              pipelineId={pipelineId}
              stage={stage}
              stages={board.data.stages}
              canWrite={canWrite}
              focusDealId={focusDealId}
              onMove={(deal, stageId, byKeyboard) => {
                setFocusDealId(byKeyboard ? deal.id : undefined);
                move.mutate({ deal, stageId });
              }}
            />
          ))}
        </div>
      )}
    </div>
  );
}

/** The board with a deal moved to the top of another stage's column (its counts follow; totals wait for the server). */
function moveCard(board: BoardRecord, deal: DealRecord, stageId: string): BoardRecord {
  const moved = { ...deal, stage_id: stageId };
  return {
    ...board,
    stages: board.stages.map((s) => {
      if (s.id === deal.stage_id)
        return { ...s, deal_count: Math.max(0, s.deal_count - 1), deals: s.deals.filter((d) => d.id !== deal.id) };
      if (s.id === stageId) return { ...s, deal_count: s.deal_count + 1, deals: [moved, ...s.deals] };
      return s;
    }),
  };
}
