/** What the sign-in and sign-up forms share: send the credentials, forget the password, then go on signed in; the new-password field. */
import type { FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { formErrors, TextField } from '../forms.tsx';
import { MIN_PASSWORD_LENGTH } from './ResetPasswordPage.tsx';

/**
 * One submission of a form that ends signed in: `send` posts it, `forget` clears the password from
 * the form, `then` refreshes the session (the page moves on by itself). `summary` is the alert's line,
 * left out when a field shows the message itself.
 */
export function useSignInForm({
  send,
  forget,
  then,
  fields,
}: {
  send(): Promise<unknown>;
  forget(): void;
  then(): Promise<void>;
  fields: string[];
}) {
  const mutation = useMutation({
    mutationFn: send,
    onSuccess: async () => {
      forget();
      await then();
    },
  });
  const errors = formErrors(mutation.error);
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    mutation.mutate();
  }
  return { busy: mutation.isPending, errors, onSubmit, summary: errors.summary(...fields) };
}

/** A new account's password, with its rule under it and the API's message for `/password`. */
export function NewPasswordField({ value, onChange, error }: { value: string; onChange(value: string): void; error: string | undefined }) {
  return (
    <TextField
      label="Password"
      type="password"
      name="password"
      autoComplete="new-password"
      required
      value={value}
      onChange={onChange}
      error={error}
      description={`At least ${MIN_PASSWORD_LENGTH} characters.`}
    />
  );
}
