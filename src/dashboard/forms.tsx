/**
 * The dashboard's form controls: every control has a visible label, a description and an error tied
 * to it with aria-describedby, and `aria-invalid` when the API refused its value. Every write is a
 * TanStack Query `useMutation` (pending state, cache invalidation in its `onSuccess`); `formErrors`
 * reads its failure for the form: the alert's line and each field's own message next to it.
 */
import { useId, type ReactNode } from 'react';
import { ApiError, errorMessage } from './api.ts';
import { ErrorMessage } from './ui.tsx';

export type FormErrors = {
  /** The failure's line for the form's alert (undefined when none). */
  message: string | undefined;
  /** The API's message for one field (`/name`, `/content/body`). */
  field(pointer: string): string | undefined;
  /** The alert's line, left out when one of these fields already shows the message beside itself. */
  summary(...pointers: string[]): string | undefined;
};

/** What a form shows of a mutation's `error`: the summary, and the API's per-field messages by JSON pointer. */
export function formErrors(error: unknown): FormErrors {
  const message = error === null || error === undefined ? undefined : errorMessage(error);
  const field = (pointer: string) => (error instanceof ApiError ? error.fieldError(pointer) : undefined);
  return { message, field, summary: (...pointers) => (pointers.some((p) => field(p) !== undefined) ? undefined : message) };
}

type FieldShell = { label: ReactNode; description?: ReactNode; error?: string; className?: string };

function useFieldIds(error: string | undefined, description: ReactNode) {
  const id = useId();
  const describedBy = [description ? `${id}-desc` : undefined, error ? `${id}-err` : undefined].filter(Boolean).join(' ') || undefined;
  return { id, describedBy };
}

function FieldNotes({ id, description, error }: { id: string; description?: ReactNode; error?: string }) {
  return (
    <>
      {description ? (
        <span id={`${id}-desc`} className="field-description">
          {description}
        </span>
      ) : null}
      {error ? (
        <span id={`${id}-err`} className="field-error">
          {error}
        </span>
      ) : null}
    </>
  );
}

type TextFieldProps = FieldShell & {
  value: string;
  onChange(value: string): void;
  type?: 'text' | 'email' | 'password' | 'url' | 'tel' | 'search' | 'number' | 'date' | 'datetime-local';
  required?: boolean;
  placeholder?: string;
  autoComplete?: string;
  maxLength?: number;
  disabled?: boolean;
  autoFocus?: boolean;
  multiline?: boolean;
  rows?: number;
  name?: string;
  /** What a keyboard shortcut finds the field by (pages/inbox/shortcuts.tsx). */
  'data-shortcut'?: string;
};

export function TextField({
  label,
  description,
  error,
  className,
  value,
  onChange,
  type = 'text',
  multiline,
  rows = 3,
  ...rest
}: TextFieldProps) {
  const { id, describedBy } = useFieldIds(error, description);
  const common = { id, value, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy, ...rest };
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea {...common} rows={rows} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} type={type} onChange={(e) => onChange(e.target.value)} />
      )}
      <FieldNotes id={id} description={description} error={error} />
    </div>
  );
}

type SelectFieldProps = FieldShell & {
  value: string;
  onChange(value: string): void;
  options: ReadonlyArray<{ value: string; label: string; disabled?: boolean }>;
  disabled?: boolean;
  required?: boolean;
};

export function SelectField({ label, description, error, className, value, onChange, options, ...rest }: SelectFieldProps) {
  const { id, describedBy } = useFieldIds(error, description);
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
        {...rest}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} disabled={o.disabled}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldNotes id={id} description={description} error={error} />
    </div>
  );
}

export function CheckboxField({
  label,
  description,
  checked,
  onChange,
  disabled,
}: {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  onChange(checked: boolean): void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={description ? `${id}-desc` : undefined}
      />
      <label htmlFor={id}>{label}</label>
      {description ? (
        <span id={`${id}-desc`} className="field-description">
          {description}
        </span>
      ) : null}
    </div>
  );
}

/** A group of checkboxes picking several values (permissions, event types), with one legend and one error. */
export function CheckboxGroup({
  legend,
  options,
  value,
  onChange,
  error,
  description,
}: {
  legend: string;
  options: ReadonlyArray<{ value: string; label: ReactNode; description?: ReactNode }>;
  value: readonly string[];
  onChange(value: string[]): void;
  error?: string;
  description?: ReactNode;
}) {
  const id = useId();
  const chosen = new Set(value);
  return (
    <fieldset
      className="field-group"
      aria-describedby={[description ? `${id}-desc` : '', error ? `${id}-err` : ''].join(' ').trim() || undefined}
    >
      <legend>{legend}</legend>
      <FieldNotes id={id} description={description} error={error} />
      <div className="check-grid">
        {options.map((o) => (
          <label key={o.value} className="check-option">
            <input
              type="checkbox"
              checked={chosen.has(o.value)}
              onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
            />
            <span>
              <span className="check-label">{o.label}</span>
              {o.description ? <span className="check-description">{o.description}</span> : null}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * A section's small write form: its heading, the failure's alert, the fields in a grid and one submit
 * button (disabled while the write is pending). The contact page's consent and suppression forms.
 */
export function SectionForm({
  label,
  title,
  error,
  pending,
  submitLabel,
  onSubmit,
  children,
}: {
  label: string;
  title: string;
  error: string | undefined;
  pending: boolean;
  submitLabel: string;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="stack-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      noValidate
      aria-label={label}
    >
      <h3>{title}</h3>
      <ErrorMessage message={error} />
      <div className="form-grid">{children}</div>
      <button type="submit" className="button" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
