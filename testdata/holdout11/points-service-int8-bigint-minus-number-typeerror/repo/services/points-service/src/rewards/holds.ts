export interface Hold {
  orderId: string;
  points: number;
  expiresAt: string;
}

/** Points reserved by mobile orders that are not picked up yet. */
export function sumHolds(holds: Hold[]): number {
  return holds.reduce((acc, h) => acc + h.points, 0);
}
