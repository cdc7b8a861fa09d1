#include "server/auth/saslprep.h"

#include <unicode/usprep.h>
#include <unicode/ustring.h>

#include <climits>
#include <memory>
#include <string>

#include "mongostore/error.h"

namespace mongostore::server::auth {
namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw Error(ErrorCode::kBadValue, "SASLprep: the password " + why);
}

struct ProfileCloser {
  void operator()(UStringPrepProfile* p) const { usprep_close(p); }
};

}  // namespace

std::string saslprep(std::string_view password) {
  if (password.size() > static_cast<size_t>(INT32_MAX / 4)) refuse("is too long");
  const auto length = static_cast<int32_t>(password.size());
  UErrorCode status = U_ZERO_ERROR;
  // UTF-8 to the UTF-16 ICU works in (a UTF-16 string has no more units than UTF-8 bytes).
  std::u16string in(password.size(), u'\0');
  int32_t in_length = 0;
  u_strFromUTF8(in.data(), length, &in_length, password.data(), length, &status);
  if (U_FAILURE(status)) refuse("is not valid UTF-8");

  // ICU caches the profile's data; opening it is a lookup. The profile is immutable and may
  // be used by several threads, but a handle per call keeps this free of shared state.
  std::unique_ptr<UStringPrepProfile, ProfileCloser> profile(
      usprep_openByType(USPREP_RFC4013_SASLPREP, &status));
  if (U_FAILURE(status)) {
    throw Error(
        ErrorCode::kInternalError,
        std::string("SASLprep: ICU's RFC 4013 profile is unavailable: ") + u_errorName(status));
  }
  // Mapping can lengthen a string (NFKC of a ligature, ...): try with room to spare, then
  // with the exact size ICU reports.
  std::u16string out(static_cast<size_t>(in_length) * 2 + 16, u'\0');
  int32_t out_length =
      usprep_prepare(profile.get(), in.data(), in_length, out.data(),
                     static_cast<int32_t>(out.size()), USPREP_DEFAULT, nullptr, &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    out.assign(static_cast<size_t>(out_length), u'\0');
    out_length = usprep_prepare(profile.get(), in.data(), in_length, out.data(),
                                static_cast<int32_t>(out.size()), USPREP_DEFAULT, nullptr, &status);
  }
  if (status == U_STRINGPREP_PROHIBITED_ERROR) refuse("contains a prohibited character");
  if (status == U_STRINGPREP_UNASSIGNED_ERROR) refuse("contains an unassigned code point");
  if (status == U_STRINGPREP_CHECK_BIDI_ERROR) {
    refuse("mixes left-to-right and right-to-left text (RFC 3454 section 6)");
  }
  if (U_FAILURE(status)) refuse(std::string("cannot be prepared: ") + u_errorName(status));
  if (out_length == 0 && in_length != 0) refuse("is empty once prepared");

  // Back to UTF-8 (at most 3 bytes per UTF-16 unit).
  std::string prepared(static_cast<size_t>(out_length) * 3, '\0');
  int32_t prepared_length = 0;
  u_strToUTF8(prepared.data(), static_cast<int32_t>(prepared.size()), &prepared_length, out.data(),
              out_length, &status);
  if (U_FAILURE(status)) refuse(std::string("cannot be encoded: ") + u_errorName(status));
  prepared.resize(static_cast<size_t>(prepared_length));
  return prepared;
}

}  // namespace mongostore::server::auth
