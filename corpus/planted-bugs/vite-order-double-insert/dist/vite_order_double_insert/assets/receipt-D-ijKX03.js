// worker/receipt.ts
function receipt(order) {
	return {
		orderId: order.orderId,
		total: `${(order.amountCents / 100).toFixed(2)} USD`
	};
}
export { receipt };

//# sourceMappingURL=receipt-D-ijKX03.js.map