/**
 * The ingress limits as a Jakarta Servlet filter ({@link dev.sluice.http.servlet.SluiceRateLimitFilter}), for
 * Spring MVC, Tomcat, Jetty and Javalin.
 */
package dev.sluice.http.servlet;
