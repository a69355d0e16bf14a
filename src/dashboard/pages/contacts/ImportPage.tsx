/**
 * CSV import: pick a file, watch it upload, then the API's summary and its per-row error report. The
 * API reads the file as it arrives and answers when every row is written, so the progress shown is
 * the upload's, then "writing the rows" until the answer comes.
 */
import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { orgKey } from '../../query.ts';
import { EmptyState, ErrorMessage, PageHeader, Table } from '../../ui.tsx';
import { importContacts, type ImportResultRecord, type UploadProgress } from './api.ts';
import { BackToContacts } from './parts.tsx';

const SAMPLE =
  'phone_number,name,email,external_source,external_id,custom_fields.plan\n+49 30 123456,Ana Souza,ana@example.com,hubspot,81723,pro';

export function ImportPage() {
  const queryClient = useQueryClient();
  const inputId = useId();
  const [file, setFile] = useState<File | undefined>(undefined);
  const [progress, setProgress] = useState<UploadProgress | undefined>(undefined);
  const run = useMutation({
    mutationFn: (chosen: File) => importContacts(chosen, setProgress),
    onSettled: () => queryClient.invalidateQueries({ queryKey: orgKey('contacts') }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setProgress({ sent: 0, total: file.size });
    run.mutate(file);
  }

  return (
    <div className="contacts-area">
      <PageHeader title="Import contacts" description="Add or update many contacts at once from a CSV file.">
        <BackToContacts />
      </PageHeader>
      <section className="section card" aria-labelledby="import-file-title">
        <h2 id="import-file-title">Choose a file</h2>
        <p className="small">
          UTF-8, comma, semicolon or tab separated, the first line naming the columns: <code>phone_number</code> (or <code>phone</code>),{' '}
          <code>name</code>, <code>email</code>, <code>external_source</code>, <code>external_id</code>, <code>tags</code> (names separated
          by <code>;</code> or <code>|</code>, added to the contact) and <code>custom_fields.&lt;key&gt;</code>. Each row updates the
          contact with the same phone number, external id or email, or creates one. Rows with an error are skipped and listed below. Up to
          100,000 rows and 64 MiB; sending a file again is safe.
        </p>
        <pre className="sample" aria-label="Sample file">
          {SAMPLE}
        </pre>
        <form onSubmit={submit} className="import-form">
          <div className="field">
            <label htmlFor={inputId}>CSV file</label>
            <input
              id={inputId}
              type="file"
              accept=".csv,text/csv,.ndjson,.jsonl,application/x-ndjson"
              disabled={run.isPending}
              onChange={(e) => {
                setFile(e.target.files?.[0]);
                setProgress(undefined);
                run.reset();
              }}
            />
          </div>
          <button type="submit" className="button button-primary" disabled={!file || run.isPending}>
            {run.isPending ? 'Importing…' : 'Import'}
          </button>
        </form>
        {progress ? <Progress progress={progress} state={run.isPending ? 'running' : run.isError ? 'failed' : 'done'} /> : null}
        <ErrorMessage message={run.error ? errorMessage(run.error) : undefined} />
      </section>
      {run.data ? <ImportReport result={run.data} /> : null}
    </div>
  );
}

function Progress({ progress, state }: { progress: UploadProgress; state: 'running' | 'done' | 'failed' }) {
  const uploaded = progress.total > 0 ? Math.min(100, Math.round((progress.sent / progress.total) * 100)) : 100;
  const percent = state === 'done' ? 100 : uploaded;
  const label =
    state === 'done'
      ? 'Import finished'
      : state === 'failed'
        ? 'Import stopped'
        : uploaded < 100
          ? `Uploading… ${uploaded}%`
          : 'Uploaded; writing the rows…';
  return (
    <div className="import-progress">
      <progress max={100} value={percent} aria-label="Import progress" aria-valuetext={label} />
      <p role="status" className="small">
        {label}
      </p>
    </div>
  );
}

function ImportReport({ result }: { result: ImportResultRecord }) {
  const counts: Array<[string, number]> = [
    ['Rows read', result.rows],
    ['Created', result.created],
    ['Updated', result.updated],
    ['Unchanged', result.unchanged],
    ['Failed', result.failed],
  ];
  return (
    <section className="section card" aria-labelledby="import-result-title">
      <h2 id="import-result-title">Result</h2>
      <dl className="import-counts">
        {counts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value.toLocaleString()}</dd>
          </div>
        ))}
      </dl>
      {result.truncated ? (
        <p className="alert alert-error">
          The file went past the import's limit: the rows from the one named in the errors on were not read. Split the file and import the
          rest.
        </p>
      ) : null}
      <h3>Rows not imported</h3>
      {result.errors.length === 0 ? (
        <EmptyState title="Every row was imported" />
      ) : (
        <>
          <Table
            label="Import errors table"
            caption="Rows not imported and why"
            columns={['Row', 'Line', 'Field', 'Error']}
            className="import-errors"
          >
            {result.errors.map((e) => (
              <tr key={`${e.row}:${e.field ?? ''}`}>
                <td>{e.row}</td>
                <td>{e.line}</td>
                <td className="mono">{e.field ?? 'the row'}</td>
                <td>{e.message}</td>
              </tr>
            ))}
          </Table>
          {result.errors_truncated ? (
            <p className="small muted">More rows failed than are listed here ({result.failed.toLocaleString()} in all).</p>
          ) : null}
        </>
      )}
    </section>
  );
}
