/**
 * The QR a phone scans to pair a gateway channel. A QR lapses: the view asks for the next one when
 * it does. It learns of the pairing from the live `channel.status_update` event (the channel page
 * listens and refreshes the channel, which then leaves `pairing`).
 */
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { orgKey } from '../../query.ts';
import { ErrorMessage, Loading } from '../../ui.tsx';
import { channelsApi, type ChannelView } from './api.ts';

/**
 * The QR's own key, outside 'channels': a channel event must not ask for a QR again (once paired
 * there is none, and the gateway answers 409); the QR is renewed by its expiry alone.
 */
export const qrKey = (channelId: string) => orgKey('channel-qr', channelId);

/** Asked a little after the expiry, so the gateway has surely moved on to a new QR. */
const AFTER_EXPIRY_MS = 500;
/** When the gateway still shows a QR this browser thinks lapsed (clocks differ), ask again this much later. */
const RETRY_LAPSED_MS = 2_000;

export function PairingView({ channel }: { channel: ChannelView }) {
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
      <p className="small muted" role="status">
        Waiting for the phone… this page turns to connected by itself.
      </p>
    </section>
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
