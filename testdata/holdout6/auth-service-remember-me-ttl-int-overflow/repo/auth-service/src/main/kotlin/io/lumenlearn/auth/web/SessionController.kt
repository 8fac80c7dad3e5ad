package io.lumenlearn.auth.web

import io.lumenlearn.auth.session.RememberMeService
import io.lumenlearn.auth.session.SessionService
import org.springframework.web.bind.annotation.*

@RestController
@RequestMapping("/v1/sessions")
class SessionController(private val sessions: SessionService, private val rememberMe: RememberMeService) {

    @PostMapping
    fun create(@RequestBody req: LoginRequest): LoginResponse {
        val user = sessions.authenticate(req.tenantId, req.email, req.password)
        val session = sessions.open(user)
        val rm = if (req.rememberMe) rememberMe.issue(user.id, req.tenantId) else null
        return LoginResponse(session.token, rm, session.expiresAt)
    }
}
