package com.tidewater.inventory

import akka.actor.typed.ActorSystem
import akka.cluster.sharding.typed.scaladsl.ClusterSharding
import akka.http.scaladsl.model.StatusCodes
import akka.http.scaladsl.server.Directives._
import akka.http.scaladsl.server.Route
import akka.pattern.AskTimeoutException
import akka.util.Timeout
import org.slf4j.LoggerFactory

import scala.concurrent.duration._
import scala.util.{Failure, Success}

class InventoryRoutes(sharding: ClusterSharding)(implicit system: ActorSystem[_]) extends JsonSupport {
  private val log = LoggerFactory.getLogger(getClass)

  // Grants are on the purchase path: the store shows an error if we do not
  // answer quickly, and the client retries.
  private implicit val askTimeout: Timeout = 2.seconds

  val routes: Route =
    pathPrefix("inventories" / Segment) { playerId =>
      concat(
        (path("grants") & post & entity(as[GrantRequest])) { req =>
          val entity = sharding.entityRefFor(PlayerInventory.TypeKey, playerId)
          onComplete(entity.ask[PlayerInventory.GrantResult](PlayerInventory.GrantItems(req.grantId, req.items, _))) {
            case Success(PlayerInventory.Granted(inv)) => complete(StatusCodes.OK, inv)
            case Success(PlayerInventory.AlreadyGranted(inv)) => complete(StatusCodes.OK, inv)
            case Success(PlayerInventory.Rejected(reason)) => complete(StatusCodes.Conflict, ErrorBody(reason))
            case Failure(e: AskTimeoutException) =>
              log.warn(s"grant ${req.grantId} for player $playerId timed out: ${e.getMessage}")
              complete(StatusCodes.ServiceUnavailable, ErrorBody("inventory_busy"))
            case Failure(e) =>
              log.error(s"grant ${req.grantId} for player $playerId failed", e)
              complete(StatusCodes.InternalServerError, ErrorBody("internal"))
          }
        },
        (pathEnd & get) {
          val entity = sharding.entityRefFor(PlayerInventory.TypeKey, playerId)
          onSuccess(entity.ask(PlayerInventory.Get(_))) { inv => complete(inv) }
        }
      )
    }
}
