// CollectionOptions as the create and collMod commands take them.
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"

namespace mongostore::client {

bson::Document CollectionOptions::to_document() const {
  bson::DocumentBuilder b;
  if (validator) b.append("validator", *validator);
  if (validation_level) b.append("validationLevel", *validation_level);
  if (validation_action) b.append("validationAction", *validation_action);
  if (collation) b.append("collation", *collation);
  return b.finish();
}

}  // namespace mongostore::client
