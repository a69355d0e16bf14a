import { PageHeader } from '../ui.tsx';

/** Scaffolding while an area's pages are being built: says so plainly instead of a blank page. */
export function PlannedPage({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <p className="muted">This page is not built yet.</p>
    </>
  );
}
