import { OrderPlaced } from '@tessera/protos/orders/v1/order_events';
import { formatMoney } from '../money';
import { describeSlot } from '../slots';

export interface ConfirmationEmail {
  to: string;
  subject: string;
  html: string;
}

export function renderConfirmation(event: OrderPlaced, email: string): ConfirmationEmail {
  const total = formatMoney(Number(event.totalMinor), event.currency);
  const kits = event.items.map((i) => `<li>${i.quantity} × ${i.kitName}</li>`).join('');
  const slot = event.deliverySlotId ? describeSlot(event.deliverySlotId) : 'we will email your delivery slot';
  return {
    to: email,
    subject: `Your Tessera order ${event.orderId} is confirmed`,
    html: `<p>Thanks for your order!</p><ul>${kits}</ul><p>Total: ${total}</p><p>Delivery: ${slot}</p>`,
  };
}
