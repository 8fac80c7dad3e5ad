<?php

namespace App\Http\Controllers;

use App\Exceptions\UnknownPlanTier;
use App\Services\PlanChangeService;
use Illuminate\Http\Request;

class PlanController extends Controller
{
    public function update(Request $request, PlanChangeService $plans)
    {
        $data = $request->validate(['tier' => 'required|string']);
        $sub = $request->user()->subscription;
        try {
            $sub = $plans->change($sub, $data['tier']);
        } catch (UnknownPlanTier $e) {
            return response()->json(['error' => 'unknown_plan', 'message' => $e->getMessage()], 422);
        }
        return response()->json(['tier' => $sub->tier, 'pending_tier' => $sub->pending_tier]);
    }
}
