import type mongoose from 'mongoose';

/**
 * The MongoDB driver's collection under a mongoose model, typed as the model's documents. For the
 * hot paths whose documents and filters are built whole in code: there mongoose's casting, query
 * objects and validation cost more CPU than the engine's work for the command. The model still
 * owns the collection's name and indexes (syncIndexes).
 */
export function driverCollection<T extends mongoose.mongo.Document>(
  model: mongoose.Model<T>,
): mongoose.mongo.Collection<T> {
  // mongoose types its collection as its own wrapper; at run time it is the driver's, with every method.
  return model.collection as unknown as mongoose.mongo.Collection<T>;
}
