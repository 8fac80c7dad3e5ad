'use strict';

const { Queue, Worker } = require('bullmq');

const connection = { host: process.env.REDIS_HOST || 'redis-master.cache.svc', port: 6379, connectTimeout: 5000 };

const exportsQueue = new Queue('pdf-exports', { connection });

module.exports = { exportsQueue, connection, Worker };
