/**
 * A sandbox channel's page plays the outside world's part, through the sandbox's own control routes:
 * the sandbox's phone scans the QR on screen (a linked-device channel pairing), and a customer writes
 * in (the message arrives through the provider's callback, as a real one would, and shows in the inbox).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formErrors, TextField } from '../../forms.tsx';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ErrorMessage } from '../../ui.tsx';
import { channelsApi, sandboxApi, type ChannelCapabilitiesRecord, type ChannelView } from './api.ts';
import { qrKey } from './PairingView.tsx';

export function SandboxPanel({ channel, capabilities }: { channel: ChannelView; capabilities: ChannelCapabilitiesRecord | undefined }) {
  const pairs = capabilities?.operations.includes('channel.qr') ?? false;
  return (
    <section className="card sandbox-panel" aria-labelledby="sandbox-title">
      <h2 id="sandbox-title">Sandbox</h2>
      <p className="small muted">This channel runs on the built-in sandbox: play the customer’s side from here.</p>
      {pairs && channel.status === 'pairing' ? <ScanQr channel={channel} /> : null}
      {channel.status === 'connected' ? (
        <PlayCustomer channel={channel} />
      ) : (
        <p className="small">
          {pairs
            ? 'The channel is not paired yet: pair a phone, then scan its QR with the sandbox phone below it.'
            : 'A customer can write once the channel is connected.'}
        </p>
      )}
    </section>
  );
}

/** The sandbox's phone scans the QR the pairing view shows (the same cache entry: no second fetch). */
function ScanQr({ channel }: { channel: ChannelView }) {
  const canWrite = useCan('channels:write');
  const qr = useQuery({ queryKey: qrKey(channel.id), queryFn: () => channelsApi.qr(channel.id), enabled: false });
  const scan = useMutation({ mutationFn: (text: string) => sandboxApi.scan(text) });
  const shown = qr.data?.qr;
  if (!canWrite || !shown) return null;
  return (
    <div className="sandbox-scan">
      <button type="button" className="button" disabled={scan.isPending} onClick={() => scan.mutate(shown)}>
        {scan.isPending ? 'Scanning…' : 'Scan with the sandbox phone'}
      </button>
      <ErrorMessage message={scan.error ? errorMessage(scan.error) : undefined} />
      {scan.isSuccess ? (
        <p className="small muted" role="status">
          Scanned: the channel turns connected in a moment.
        </p>
      ) : null}
    </div>
  );
}

/** A customer writes a text to the channel (POST /sandbox/inbound). */
function PlayCustomer({ channel }: { channel: ChannelView }) {
  const canSend = useCan('messages:send');
  const [from, setFrom] = useState('');
  const [name, setName] = useState('');
  const [body, setBody] = useState('');
  const play = useMutation({
    mutationFn: () => sandboxApi.customerWrites({ channel_id: channel.id, from: from.trim(), name: name.trim(), body }),
    onSuccess: () => setBody(''),
  });
  const errors = formErrors(play.error);
  if (!canSend) return null;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    play.mutate();
  }

  return (
    <form className="sandbox-play" aria-label="Play a customer message" onSubmit={onSubmit} noValidate>
      <h3>Play a customer message</h3>
      <TextField
        label="Customer number"
        type="tel"
        value={from}
        onChange={setFrom}
        autoComplete="off"
        placeholder="+49 151 2345 6789"
        description="The customer's number, in international format."
      />
      <TextField label="Customer name" value={name} onChange={setName} autoComplete="off" description="Optional: their profile name." />
      <TextField label="Message" multiline rows={2} value={body} onChange={setBody} maxLength={4096} />
      <ErrorMessage message={errors.message} />
      <button type="submit" className="button" disabled={play.isPending}>
        {play.isPending ? 'Sending…' : 'Send as the customer'}
      </button>
      <div role="status" className="small">
        {play.isSuccess ? (
          <>
            The sandbox delivered it to the channel: <Link to={`/inbox?channel=${channel.id}`}>Open the inbox</Link>
          </>
        ) : null}
      </div>
    </form>
  );
}
