import { searchFares } from '../clients/fareClient';
import type { MultiCityRequest } from '../schemas';

export async function multiCity(req: MultiCityRequest) {
  const ctrl = new AbortController();
  const legs = await Promise.all(req.legs.map((leg) => searchFares({ ...req.common, ...leg }, ctrl.signal)));
  return { legs };
}
