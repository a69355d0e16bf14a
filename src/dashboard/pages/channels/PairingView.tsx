/**
 * The QR a phone scans to pair a gateway channel. A QR lapses: the view asks for the next one when
 * it does. It learns of the pairing from the live `channel.status_update` event (the channel page
 * listens and refreshes the channel, which then leaves `pairing`).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { ErrorMessage, Loading } from '../../ui.tsx';
import { channelsApi, type ChannelCapabilitiesRecord, type ChannelView, type ConnectView } from './api.ts';

/**
 * The QR's own key, outside 'channels': a channel event must not ask for a QR again (once paired
 * there is none, and the gateway answers 409); the QR is renewed by its expiry alone.
 */
export const qrKey = (channelId: string) => orgKey('channel-qr', channelId);

/** Asked a little after the expiry, so the gateway has surely moved on to a new QR. */
const AFTER_EXPIRY_MS = 500;
/** When the gateway still shows a QR this browser thinks lapsed (clocks differ), ask again this much later. */
const RETRY_LAPSED_MS = 2_000;

export function PairingView({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  const qr = useQuery({ queryKey: qrKey(channel.id), queryFn: () => channelsApi.qr(channel.id), enabled: channel.status === 'pairing' });
  const expiresAt = qr.data?.expires_at;
  const { refetch, dataUpdatedAt } = qr;

  // Each answer schedules the next ask: at the expiry, or (when this browser's clock runs ahead of
  // the server's and the same QR came back) a little later again.
  useEffect(() => {
    if (!expiresAt) return;
    const left = new Date(expiresAt).getTime() - Date.now();
    const timer = setTimeout(() => void refetch(), left > 0 ? left + AFTER_EXPIRY_MS : RETRY_LAPSED_MS);
    return () => clearTimeout(timer);
  }, [expiresAt, dataUpdatedAt, refetch]);

  return (
    <section className="card pairing" aria-labelledby="pairing-title">
      <h2 id="pairing-title">Pair a phone</h2>
      <ol className="pairing-steps">
        <li>Open the chat app on the phone.</li>
        <li>Go to Settings → Linked devices → Link a device.</li>
        <li>Point the phone at this code.</li>
      </ol>
      {qr.error ? <ErrorMessage message={errorMessage(qr.error)} /> : null}
      {qr.data ? (
        <figure className="qr">
          <img src={qr.data.qr_image} alt={`QR code to pair ${channel.name}`} width={240} height={240} data-qr={qr.data.qr} />
          <figcaption className="small muted">
            <ExpiryNote expiresAt={qr.data.expires_at} refreshing={qr.isFetching} />
          </figcaption>
        </figure>
      ) : qr.error ? null : (
        <Loading label="Getting a QR code…" />
      )}
      {capabilities?.operations.includes('channel.pairing_code') ? <PairingCodeForm channel={channel} /> : null}
      <p className="small muted" role="status">
        Waiting for the phone… this page turns to connected by itself.
      </p>
    </section>
  );
}

/** "Can't scan?": a code for one phone number, typed on that phone (Link with phone number instead). */
function PairingCodeForm({ channel }: { channel: ChannelView }) {
  const queryClient = useQueryClient();
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState<NonNullable<ConnectView['pairing_code']> | undefined>(undefined);
  const connect = useMutation({
    mutationFn: (phoneNumber: string) => channelsApi.connect(channel.id, phoneNumber),
    onSuccess: (result) => {
      if (result.qr) queryClient.setQueryData(qrKey(channel.id), result.qr);
      setCode(result.pairing_code ?? undefined);
    },
  });
  const errors = formErrors(connect.error);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    connect.mutate(phone.trim());
  }

  return (
    <form className="pairing-code" aria-label="Pair with a code" onSubmit={onSubmit} noValidate>
      <h3>Can’t scan? Pair with a code</h3>
      <ErrorMessage message={errors.message} />
      <TextField
        label="Phone number"
        type="tel"
        value={phone}
        onChange={setPhone}
        autoComplete="tel"
        description="The phone that pairs, with its country code; on it: Linked devices → Link with phone number instead."
        error={errors.field('/phone_number')}
      />
      <button type="submit" className="button" disabled={connect.isPending}>
        {connect.isPending ? 'Asking…' : 'Get a pairing code'}
      </button>
      {code ? (
        <p role="status" className="pairing-code-result">
          Type this code on the phone: <strong className="mono">{code.code}</strong>
          <span className="small muted"> (valid until {formatDate(code.expires_at)}; it lapses with the QR)</span>
        </p>
      ) : null}
    </form>
  );
}

/** "Renews in 42 s", ticking each second. */
function ExpiryNote({ expiresAt, refreshing }: { expiresAt: string; refreshing: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (refreshing) return <>Getting a new code…</>;
  const seconds = Math.max(0, Math.round((new Date(expiresAt).getTime() - now) / 1000));
  return <>{seconds > 0 ? `This code is renewed in ${seconds} s.` : 'This code lapsed; getting a new one…'}</>;
}
