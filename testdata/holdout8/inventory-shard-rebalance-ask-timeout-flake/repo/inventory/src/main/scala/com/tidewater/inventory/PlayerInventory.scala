package com.tidewater.inventory

import akka.actor.typed.{ActorRef, Behavior}
import akka.cluster.sharding.typed.scaladsl.EntityTypeKey
import akka.persistence.typed.{PersistenceId, RecoveryCompleted}
import akka.persistence.typed.scaladsl.{Effect, EventSourcedBehavior}
import org.slf4j.LoggerFactory

import java.time.Instant

object PlayerInventory {
  private val log = LoggerFactory.getLogger(getClass)

  val TypeKey: EntityTypeKey[Command] = EntityTypeKey[Command]("PlayerInventory")

  sealed trait Command extends CborSerializable
  final case class GrantItems(grantId: String, items: List[ItemGrant], replyTo: ActorRef[GrantResult]) extends Command
  final case class Get(replyTo: ActorRef[Inventory]) extends Command

  sealed trait GrantResult extends CborSerializable
  final case class Granted(inventory: Inventory) extends GrantResult
  final case class AlreadyGranted(inventory: Inventory) extends GrantResult
  final case class Rejected(reason: String) extends GrantResult

  sealed trait Event extends CborSerializable
  final case class ItemsGranted(grantId: String, items: List[ItemGrant], at: Instant) extends Event
  final case class ItemsConsumed(items: List[ItemGrant], at: Instant) extends Event
  final case class ItemsExpired(itemIds: List[String], at: Instant) extends Event

  def apply(playerId: String): Behavior[Command] = {
    var recoveryStarted = System.nanoTime()
    EventSourcedBehavior[Command, Event, Inventory](
      persistenceId = PersistenceId(TypeKey.name, playerId),
      emptyState = Inventory.empty(playerId),
      commandHandler = (state, cmd) => cmd match {
        case GrantItems(grantId, items, replyTo) if state.grantIds.contains(grantId) =>
          Effect.reply(replyTo)(AlreadyGranted(state))
        case GrantItems(grantId, items, replyTo) if state.wouldOverflow(items) =>
          Effect.reply(replyTo)(Rejected("inventory_full"))
        case GrantItems(grantId, items, replyTo) =>
          Effect.persist(ItemsGranted(grantId, items, Instant.now())).thenReply(replyTo)(s => Granted(s))
        case Get(replyTo) =>
          Effect.reply(replyTo)(state)
      },
      eventHandler = (state, evt) => state.apply(evt)
    ).receiveSignal {
      case (state, RecoveryCompleted) =>
        val ms = (System.nanoTime() - recoveryStarted) / 1000000
        if (ms > 500) log.info(s"PlayerInventory $playerId recovered ${state.eventCount} events in $ms ms")
    }
  }
}
