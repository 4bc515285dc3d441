export type Cents = number;
