import { t } from "@/lib/i18n/format";
import { loadMessages } from "@/lib/i18n/load";
import { formatPrice } from "@/lib/money";
import type { Cart } from "@/lib/cart";

export default async function CartSummary({ cart, locale }: { cart: Cart; locale: string }) {
  const messages = await loadMessages(locale, "checkout");
  const count = cart.lines.reduce((n, l) => n + l.quantity, 0);

  return (
    <section aria-labelledby="cart-summary" className="rounded-lg bg-stone-50 p-6">
      <h2 id="cart-summary" className="text-lg font-medium">
        {t(messages, locale, "checkout.summary.title")}
      </h2>
      <p className="mt-1 text-sm text-stone-600">{t(messages, locale, "checkout.summary.items", { count })}</p>
      <dl className="mt-6 space-y-4">
        <div className="flex justify-between">
          <dt>{t(messages, locale, "checkout.summary.subtotal")}</dt>
          <dd>{formatPrice(cart.subtotal, locale)}</dd>
        </div>
        <div className="flex justify-between">
          <dt>{t(messages, locale, "checkout.summary.shipping")}</dt>
          <dd>{cart.shipping ? formatPrice(cart.shipping, locale) : t(messages, locale, "checkout.summary.freeShipping")}</dd>
        </div>
        <div className="flex justify-between border-t pt-4 font-medium">
          <dt>{t(messages, locale, "checkout.summary.total")}</dt>
          <dd>{formatPrice(cart.total, locale)}</dd>
        </div>
      </dl>
    </section>
  );
}
