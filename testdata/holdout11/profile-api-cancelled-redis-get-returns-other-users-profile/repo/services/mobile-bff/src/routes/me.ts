import { profileClient } from '../clients';

export async function me(req, res) {
  const profile = await profileClient.me(req.user.id);
  res.set('Cache-Control', 'private, no-store');
  res.json(profile);
}
