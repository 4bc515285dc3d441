import { Button } from "./components/Button";

export function App() {
  return <Button label="Checkout" />;
}
