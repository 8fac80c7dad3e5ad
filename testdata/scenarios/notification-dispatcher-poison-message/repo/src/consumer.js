'use strict';

const { Kafka, logLevel } = require('kafkajs');
const { dispatch } = require('./dispatch');
const log = require('./log');

const kafka = new Kafka({ clientId: 'notification-dispatcher', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.WARN });
const consumer = kafka.consumer({ groupId: 'notification-dispatcher', sessionTimeout: 30000 });

async function run() {
  await consumer.connect();
  await consumer.subscribe({ topic: 'notifications.outbound', fromBeginning: false });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      const event = JSON.parse(message.value.toString('utf8'));
      await dispatch(event);
      log.debug({ partition, offset: message.offset, id: event.id }, 'dispatched');
    },
  });
}

module.exports = { run, consumer };
