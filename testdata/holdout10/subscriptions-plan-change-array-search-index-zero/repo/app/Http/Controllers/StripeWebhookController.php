<?php

namespace App\Http\Controllers;

use Illuminate\Http\Request;
use Stripe\Webhook;

class StripeWebhookController extends Controller
{
    public function handle(Request $request)
    {
        $event = Webhook::constructEvent($request->getContent(), $request->header('Stripe-Signature'), config('services.stripe.webhook_secret'), 600);
        dispatch(new \App\Jobs\ProcessStripeEvent($event->toArray()));
        return response()->noContent();
    }
}
