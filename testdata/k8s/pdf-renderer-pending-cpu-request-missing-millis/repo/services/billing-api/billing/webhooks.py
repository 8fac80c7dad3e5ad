import logging

import stripe
from django.conf import settings
from django.http import HttpResponse, HttpResponseBadRequest
from django.views.decorators.csrf import csrf_exempt

from .events import dispatch_event

log = logging.getLogger("billing.webhooks")


@csrf_exempt
def stripe_webhook(request):
    payload = request.body
    sig = request.META.get("HTTP_STRIPE_SIGNATURE", "")
    try:
        event = stripe.Webhook.construct_event(payload, sig, settings.STRIPE_WEBHOOK_SECRET)
    except stripe.error.SignatureVerificationError as exc:
        # The legacy EU account still posts to this endpoint with its own secret (BILL-412).
        log.error("Stripe webhook signature verification failed: %s (account=%s)", exc,
                  request.META.get("HTTP_STRIPE_ACCOUNT", "-"))
        return HttpResponseBadRequest()
    dispatch_event(event)
    return HttpResponse(status=200)
