/**
 * Outgoing mail over SMTP (nodemailer), for invitation and password-reset links. Generic: a
 * recipient, a subject and plain text. With no SMTP_URL there is no mailer and nothing is sent; the
 * links are then only shown to whoever made them. The SMTP URL (it may hold a password) never reaches
 * a log: failures are logged by their code and the recipient's domain only.
 */
import nodemailer from 'nodemailer';
import type { Logger } from './logger.ts';

export type Mail = { to: string; subject: string; text: string };

/** Hands a mail over for sending after the caller's work is stored; it never fails the caller (failures are logged). */
export type SendMail = (mail: Mail) => void;

export type Mailer = {
  /** Sends one mail; rejects when the server refuses it or cannot be reached. */
  send(mail: Mail): Promise<void>;
  close(): void;
};

export type MailSettings = { smtpUrl: string | undefined; from: string };

/** A mailer for the settings, or undefined when no SMTP server is configured. */
export function createMailer(settings: MailSettings): Mailer | undefined {
  if (!settings.smtpUrl) return undefined;
  const transport = nodemailer.createTransport(settings.smtpUrl, { from: settings.from });
  return {
    async send(mail) {
      await transport.sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close() {
      transport.close();
    },
  };
}

/**
 * Sends without making the caller wait or fail: a request that already committed its change answers
 * whether or not the mail went out. A failure is logged without the message, the link or the SMTP URL.
 */
export function sendInBackground(mailer: Mailer | undefined, logger: Pick<Logger, 'warn'>, mail: Mail, what: string): Promise<boolean> {
  if (!mailer) return Promise.resolve(false);
  return mailer.send(mail).then(
    () => true,
    (err: unknown) => {
      const code = (err as { code?: unknown; responseCode?: unknown } | null)?.code;
      const responseCode = (err as { responseCode?: unknown } | null)?.responseCode;
      logger.warn(
        {
          mail: what,
          to_domain: mail.to.split('@').pop(),
          code: typeof code === 'string' ? code : undefined,
          response_code: typeof responseCode === 'number' ? responseCode : undefined,
        },
        'mail not sent',
      );
      return false;
    },
  );
}
