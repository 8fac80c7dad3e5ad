package io.quillstack.accounts

import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController

@RestController
class MeController(private val users: UserRepository, private val sessions: SessionService) {
    @GetMapping("/api/accounts/me")
    fun me(): MeResponse {
        val user = users.findById(sessions.currentUserId()).orElseThrow()
        return MeResponse(user.id, user.email, user.displayName, user.plan, user.lastSeenAt)
    }
}
