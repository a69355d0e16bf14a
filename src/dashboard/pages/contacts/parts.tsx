/** The way back to the contact list, which every contacts page offers. */
import { Link } from '../../router.tsx';

export function BackToContacts() {
  return (
    <Link className="button" to="/contacts">
      Back to contacts
    </Link>
  );
}
