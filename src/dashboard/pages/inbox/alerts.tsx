/**
 * Alerts for the conversations assigned to you (docs/dashboard/inbox.md): the page title counts them
 * while they have unread messages (`(2) Parley`), and, once turned on here (the browser asks for
 * permission), a customer message in one of them shows a browser notification and plays a short sound,
 * unless you are looking at that conversation. The choice is kept in this browser only.
 */
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useLiveEvent } from '../../live.tsx';
import { orgKey } from '../../query.ts';
import { useLocation, useNavigate } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { conversationTitle, inboxApi } from './api.ts';

const STORAGE_KEY = 'parley.notifications';
const supported = () => typeof window !== 'undefined' && 'Notification' in window;

/** A short two-tone chime made in the page (no file to fetch); silent where audio is not allowed yet. */
function chime(): void {
  const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Context) return;
  try {
    const audio = new Context();
    const gain = audio.createGain();
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.45);
    gain.connect(audio.destination);
    for (const [i, frequency] of [880, 1320].entries()) {
      const tone = audio.createOscillator();
      tone.frequency.value = frequency;
      tone.connect(gain);
      tone.start(audio.currentTime + i * 0.15);
      tone.stop(audio.currentTime + i * 0.15 + 0.2);
    }
    setTimeout(() => void audio.close().catch(() => undefined), 1000);
  } catch {
    // No sound rather than an error.
  }
}

/** The unread count in the title, and notifications once turned on. Renders the switch that turns them on. */
export function InboxAlerts() {
  const session = useSession();
  const me = session.user.id;
  const navigate = useNavigate();
  const location = useLocation();
  const [enabled, setEnabled] = useState(() => supported() && localStorage.getItem(STORAGE_KEY) === 'on');
  const [permission, setPermission] = useState(() => (supported() ? Notification.permission : 'denied'));

  // Conversations assigned to me with unread messages (live events mark the list stale, so it follows).
  const unread = useQuery({
    queryKey: orgKey('conversations', 'assigned-unread'),
    queryFn: () => inboxApi.conversations({ assignee: 'me', unread: 'true' }),
  });
  const count = unread.data?.data.length ?? 0;
  useEffect(() => {
    const base = document.title.replace(/^\(\d+\+?\) /, '');
    document.title = count > 0 ? `(${unread.data?.meta.next_cursor ? `${count}+` : count}) ${base}` : base;
  }, [count, unread.data?.meta.next_cursor]);

  useLiveEvent(['message.new'], (event) => {
    const data = event.data as { conversation_id?: string; direction?: string };
    if (!enabled || permission !== 'granted' || data.direction !== 'inbound' || !data.conversation_id) return;
    const conversationId = data.conversation_id;
    const looking = !document.hidden && location.pathname === `/inbox/${conversationId}`;
    if (looking) return;
    void inboxApi
      .conversation(conversationId)
      .then((conversation) => {
        if (conversation.assignee_user_id !== me) return;
        const shown = new Notification(`New message from ${conversationTitle(conversation)}`, {
          body: conversation.last_message_preview ?? '',
          tag: `parley-${conversationId}`,
        });
        shown.onclick = () => {
          window.focus();
          navigate(`/inbox/${conversationId}`);
          shown.close();
        };
        chime();
      })
      .catch(() => undefined);
  });

  if (!supported()) return null;
  const on = enabled && permission === 'granted';
  return (
    <button
      type="button"
      className="button button-sidebar"
      aria-pressed={on}
      disabled={permission === 'denied'}
      title={permission === 'denied' ? 'Notifications are blocked in this browser’s site settings' : undefined}
      onClick={async () => {
        if (on) {
          localStorage.setItem(STORAGE_KEY, 'off');
          setEnabled(false);
          return;
        }
        const answer = permission === 'granted' ? 'granted' : await Notification.requestPermission();
        setPermission(answer);
        localStorage.setItem(STORAGE_KEY, answer === 'granted' ? 'on' : 'off');
        setEnabled(answer === 'granted');
      }}
    >
      {permission === 'denied' ? 'Notifications blocked' : on ? 'Notifications on' : 'Turn on notifications'}
    </button>
  );
}
