# The one Proctor image: `proctor operator` (the controller), `proctor judge` (the judge Job) and
# `proctor collector` (arm B: OTLP/HTTP in, runs judged, the runs API; the chart runs it with
# collector.enabled).
# Not built in this repository's CI (the development machines have no Docker engine).
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY operator ./operator
# the development tools (the local control plane, the test harness: `pip install 'proctor[dev]'` from
# a checkout) are not the operator's: the image leaves them out, and `proctor dev` in it says so
RUN rm -rf operator/proctor/devcluster operator/proctor/testing \
    && pip install --no-cache-dir --prefix=/install .

FROM python:3.11-slim
RUN groupadd --gid 65532 proctor && useradd --uid 65532 --gid 65532 --no-create-home --shell /sbin/nologin proctor
COPY --from=build /install /usr/local
USER 65532:65532
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
ENTRYPOINT ["proctor"]
CMD ["operator"]
