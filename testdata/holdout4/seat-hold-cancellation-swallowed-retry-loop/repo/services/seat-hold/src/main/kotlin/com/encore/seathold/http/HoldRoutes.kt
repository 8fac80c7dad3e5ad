package com.encore.seathold.http

import com.encore.seathold.db.SeatsTakenException
import com.encore.seathold.hold.HoldRequest
import com.encore.seathold.hold.HoldService
import io.ktor.http.HttpStatusCode
import io.ktor.server.request.receive
import io.ktor.server.response.respond
import io.ktor.server.routing.Route
import io.ktor.server.routing.post
import kotlinx.coroutines.TimeoutCancellationException

fun Route.holdRoutes(holds: HoldService) {
    post("/v1/events/{eventId}/holds") {
        val body = call.receive<HoldRequest>()
        try {
            val hold = holds.hold(body.copy(eventId = call.parameters["eventId"]!!))
            call.respond(HttpStatusCode.Created, hold)
        } catch (e: SeatsTakenException) {
            call.respond(HttpStatusCode.Conflict, mapOf("error" to "seats_taken", "seats" to e.seatIds))
        } catch (e: TimeoutCancellationException) {
            call.respond(HttpStatusCode.ServiceUnavailable, mapOf("error" to "hold_timeout"))
        }
    }
}
