// The order form: posts the order to the Worker's API.
const form = document.querySelector<HTMLFormElement>("#order");
form?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  await fetch("/api/orders", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ orderId: data.get("orderId"), amountCents: Number(data.get("amountCents")) }),
  });
});
