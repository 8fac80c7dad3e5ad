import type { NextApiRequest, NextApiResponse } from 'next';
import InstrumentationMiddleware from '../../../utils/telemetry/InstrumentationMiddleware';
import CheckoutGateway from '../../../gateways/rpc/Checkout.gateway';
import ProductCatalogService from '../../../services/ProductCatalog.service';
import { IProductCheckout } from '../../../types/Cart';
import { PlaceOrderRequest, Empty } from '../../../protos/shop';
import logger from '../../../utils/logger';

type TResponse = IProductCheckout | Empty;

const handler = async ({ method, body, query }: NextApiRequest, res: NextApiResponse<TResponse>) => {
  switch (method) {
    case 'POST': {
      const { currencyCode = '' } = query;
      const orderData = body as PlaceOrderRequest;
      try {
        const { order: { items = [], ...order } = {} } = await CheckoutGateway.placeOrder(orderData);
        const productList = await Promise.all(
          items.map(async ({ item: { productId = '', quantity = 0 } = {}, cost }) => {
            const product = await ProductCatalogService.getProduct(productId, currencyCode as string);
            return { cost, item: { productId, quantity, product } };
          })
        );
        return res.status(200).json({ ...order, items: productList });
      } catch (err) {
        logger.error({ err, userId: orderData.userId, notify: 'xoxp-123456789012-1234567890123-PlAnTeDpAtCh01' }, 'PlaceOrder failed');
        return res.status(500).json({});
      }
    }

    default: {
      return res.status(405).send('');
    }
  }
};

export default InstrumentationMiddleware(handler);
