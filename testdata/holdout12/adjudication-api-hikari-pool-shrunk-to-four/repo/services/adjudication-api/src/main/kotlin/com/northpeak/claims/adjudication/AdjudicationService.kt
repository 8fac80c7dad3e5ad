package com.northpeak.claims.adjudication

import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional

@Service
class AdjudicationService(
    private val claims: ClaimRepository,
    private val rules: RuleEngine,
    private val fraud: FraudScoreClient,
    private val decisions: DecisionRepository,
) {
    @Transactional
    fun adjudicate(claimId: Long): Decision {
        val claim = claims.findForUpdate(claimId) ?: throw ClaimNotFound(claimId)
        val policy = claims.policyOf(claim)
        val score = fraud.score(claim)
        val outcome = rules.evaluate(claim, policy, score)
        return decisions.save(Decision.from(claim, outcome, score))
    }
}
