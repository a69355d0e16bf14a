/** A shared contact card with every part the provider's contacts object has (the official wire and the vCard tests send it). */
export const FULL_CONTACT_CARD = {
  full_name: 'Dr Ana M. Lima Jr',
  first_name: 'Ana',
  middle_name: 'M.',
  last_name: 'Lima',
  name_prefix: 'Dr',
  name_suffix: 'Jr',
  phones: [
    { phone: '+5511912345678', type: 'HOME' },
    { phone: '5511912345670', type: 'WORK', wa_id: '5511912345670' },
  ],
  emails: [{ email: 'ana@example.com', type: 'WORK' }, { email: 'ana.lima@example.org' }],
  urls: [{ url: 'https://example.com/ana', type: 'WORK' }],
  addresses: [{ street: 'Rua A 1', city: 'São Paulo', state: 'SP', zip: '01000-000', country: 'Brazil', country_code: 'BR', type: 'HOME' }],
  organization: 'Acme',
  department: 'Sales',
  job_title: 'Manager',
  birthday: '1990-04-01',
};
