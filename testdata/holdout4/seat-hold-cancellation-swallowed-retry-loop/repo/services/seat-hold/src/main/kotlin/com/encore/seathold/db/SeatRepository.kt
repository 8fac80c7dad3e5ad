package com.encore.seathold.db

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.time.Duration
import javax.sql.DataSource

class SeatsTakenException(val seatIds: List<String>) : RuntimeException("seats already held: $seatIds")

class SeatRepository(private val ds: DataSource) {

    suspend fun holdSeats(eventId: String, seatIds: List<String>, sessionId: String, ttl: Duration) =
        withContext(Dispatchers.IO) {
            ds.connection.use { c ->
                c.autoCommit = false
                c.createStatement().use { it.execute("SET LOCAL lock_timeout = '800ms'") }
                val held = c.prepareStatement(
                    """UPDATE seats SET held_by = ?, held_until = now() + ?::interval
                       WHERE event_id = ? AND seat_id = ANY(?) AND (held_until IS NULL OR held_until < now())
                       RETURNING seat_id"""
                ).use { ps ->
                    ps.setString(1, sessionId)
                    ps.setString(2, "${ttl.toSeconds()} seconds")
                    ps.setString(3, eventId)
                    ps.setArray(4, c.createArrayOf("text", seatIds.toTypedArray()))
                    ps.executeQuery().use { rs -> generateSequence { if (rs.next()) rs.getString(1) else null }.toList() }
                }
                if (held.size != seatIds.size) {
                    c.rollback()
                    throw SeatsTakenException(seatIds - held.toSet())
                }
                c.commit()
                com.encore.seathold.hold.Hold.create(eventId, held, sessionId, ttl)
            }
        }

    suspend fun release(holdId: String) = withContext(Dispatchers.IO) {
        ds.connection.use { c ->
            c.prepareStatement("UPDATE seats SET held_by = NULL, held_until = NULL WHERE held_by = ?").use {
                it.setString(1, holdId)
                it.executeUpdate()
            }
        }
    }
}
