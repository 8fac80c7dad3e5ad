<?php

namespace App\Services;

use App\Models\Subscription;
use App\Exceptions\UnknownPlanTier;
use Illuminate\Support\Facades\Log;

class PlanChangeService
{
    /** Tiers from cheapest to most expensive. */
    private const TIERS = ['basic', 'plus', 'pro', 'studio'];

    public function __construct(private StripeBilling $stripe)
    {
    }

    public function change(Subscription $sub, string $targetTier): Subscription
    {
        $from = array_search($sub->tier, self::TIERS, true);
        $to = array_search($targetTier, self::TIERS, true);
        if (!$from) {
            throw new UnknownPlanTier($sub->tier);
        }
        if (!$to) {
            throw new UnknownPlanTier($targetTier);
        }

        // Upgrades are charged now (prorated); downgrades take effect at period end.
        $isUpgrade = $to > $from;
        Log::info('plan change', ['subscription' => $sub->id, 'from' => $sub->tier, 'to' => $targetTier, 'upgrade' => $isUpgrade]);
        if ($isUpgrade) {
            $this->stripe->swap($sub->stripe_subscription_id, config("plans.prices.$targetTier"), prorate: true);
            $sub->tier = $targetTier;
        } else {
            $this->stripe->scheduleSwapAtPeriodEnd($sub->stripe_subscription_id, config("plans.prices.$targetTier"));
            $sub->pending_tier = $targetTier;
        }
        $sub->save();

        return $sub;
    }
}
